--[[
  Creates an account with an opening balance, and records it in the account's audit log. Refuses an id that
  is already taken, so that creating an account twice can never reset a balance.

  KEYS[1]  account hash        {a:<account>}:account
  KEYS[2]  audit log list      {a:<account>}:audit

  ARGV[1]  account id
  ARGV[2]  name
  ARGV[3]  opening balance (µ₽, integer >= 0)
  ARGV[4]  now (ms)
  ARGV[5]  audit entry (JSON)
  ARGV[6]  most audit entries kept

  Returns  {'ok'} | {'account_exists'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'list' })
if wrongType then return wrongType end

if redis.call('EXISTS', KEYS[1]) == 1 then
  return { 'account_exists' }
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'balance', ARGV[3], 'created_at', ARGV[4])
appendAudit(KEYS[2], ARGV[5], ARGV[6])
return { 'ok' }
