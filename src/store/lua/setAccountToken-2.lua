--[[
  Sets (or clears) the hash of an account's dashboard token and records it in the account's audit log.
  An account has at most one token: setting a new one replaces the old, whose hash is returned so that
  the gateway can delete the old token -> account lookup.

  KEYS[1]  account hash        {a:<account>}:account
  KEYS[2]  audit log list      {a:<account>}:audit

  ARGV[1]  SHA-256 of the new token, or '' to revoke
  ARGV[2]  hint of the new token (its last characters), or ''
  ARGV[3]  audit entry (JSON)
  ARGV[4]  most audit entries kept

  Returns  {'ok', previousHash or ''} | {'account_not_found'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'list' })
if wrongType then return wrongType end

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'account_not_found' }
end
local previous = redis.call('HGET', KEYS[1], 'token_hash') or ''
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'token_hash', 'token_hint')
else
  redis.call('HSET', KEYS[1], 'token_hash', ARGV[1], 'token_hint', ARGV[2])
end
appendAudit(KEYS[2], ARGV[3], ARGV[4])
return { 'ok', previous }
