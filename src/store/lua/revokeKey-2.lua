--[[
  Revokes a key and records it in the account's audit log. The very next request with the key fails on
  every replica, because every request reads the key record (only the immutable hash -> key mapping is
  cached). Revoking twice keeps the first time and records nothing more.

  KEYS[1]  key record hash     {a:<account>}:key:<keyId>
  KEYS[2]  audit log list      {a:<account>}:audit

  ARGV[1]  now (ms)
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept

  Returns  {'ok', revokedAt} | {'already_revoked', revokedAt} | {'key_not_found'}
]]
--- @include "appendAudit"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'key_not_found' }
end
local revokedAt = redis.call('HGET', KEYS[1], 'revoked_at')
if revokedAt then
  return { 'already_revoked', revokedAt }
end
redis.call('HSET', KEYS[1], 'revoked_at', ARGV[1])
appendAudit(KEYS[2], ARGV[2], ARGV[3])
return { 'ok', ARGV[1] }
