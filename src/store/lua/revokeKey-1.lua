--[[
  Revokes a key. The very next request with it fails on every replica, because every request reads the
  key record (only the immutable hash -> key mapping is cached). Revoking twice keeps the first time.

  KEYS[1]  key record hash     {a:<account>}:key:<keyId>

  ARGV[1]  now (ms)

  Returns  {'ok', revokedAt} | {'already_revoked', revokedAt} | {'key_not_found'}
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'key_not_found' }
end
local revokedAt = redis.call('HGET', KEYS[1], 'revoked_at')
if revokedAt then
  return { 'already_revoked', revokedAt }
end
redis.call('HSET', KEYS[1], 'revoked_at', ARGV[1])
return { 'ok', ARGV[1] }
