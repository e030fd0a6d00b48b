--[[
  Deletes a person's API token and records the revocation in their audit log, in one step. The hash -> token
  lookup is deleted before this script, so the token stops working first.

  KEYS[1]  token hash          {u:<user>}:token:<token>
  KEYS[2]  tokens zset         {u:<user>}:tokens
  KEYS[3]  audit log list      {u:<user>}:audit

  ARGV[1]  token id
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept

  Returns  {'ok'} | {'token_not_found'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'zset', [KEYS[3]] = 'list' })
if wrongType then return wrongType end

if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return { 'token_not_found' }
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
appendAudit(KEYS[3], ARGV[2], ARGV[3])
return { 'ok' }
