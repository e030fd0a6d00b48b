--[[
  Records a person's new API token (by the SHA-256 of its value; the value itself is never stored) in their
  list of tokens, and the creation in their audit log, in one step. The hash -> token lookup, outside the
  person's tag, is written after this script, before the value is shown.

  KEYS[1]  token hash          {u:<user>}:token:<token>
  KEYS[2]  tokens zset         {u:<user>}:tokens
  KEYS[3]  audit log list      {u:<user>}:audit

  ARGV[1]  now (ms)
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept
  ARGV[4…] the token's field, value pairs (id, name, user, role, account, hash, hint, created_at, expires_at)

  Returns  {'ok'} | {'token_exists'}
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'zset', [KEYS[3]] = 'list' })
if wrongType then return wrongType end

if redis.call('EXISTS', KEYS[1]) == 1 then
  return { 'token_exists' }
end
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('ZADD', KEYS[2], ARGV[1], redis.call('HGET', KEYS[1], 'id'))
appendAudit(KEYS[3], ARGV[2], ARGV[3])
return { 'ok' }
