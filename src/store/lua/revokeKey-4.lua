--[[
  Revokes a key and records it in the account's audit log. The very next request with the key fails on
  every replica, because every request reads the key record (only the immutable hash -> key mapping is
  cached). Emits key.revoked. Revoking twice keeps the first time and records nothing more. The key's
  time-based events stay scheduled: they find it revoked when due, and are dropped then.

  KEYS[1]  key record hash     {a:<account>}:key:<keyId>
  KEYS[2]  audit log list      {a:<account>}:audit
  KEYS[3]  event stream        {a:<account>}:events
  KEYS[4]  change channel      {a:<account>}:changes (sharded pub/sub: every replica drops its leases)

  ARGV[1]  now (ms)
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept
  ARGV[4]  event context (JSON, see emitEvent.lua)

  Returns  {'ok', revokedAt} | {'already_revoked', revokedAt} | {'key_not_found'}
]]
--- @include "appendAudit"
--- @include "publishChange"
--- @include "emitEvent"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'key_not_found' }
end
local revokedAt = redis.call('HGET', KEYS[1], 'revoked_at')
if revokedAt then
  return { 'already_revoked', revokedAt }
end
redis.call('HSET', KEYS[1], 'revoked_at', ARGV[1])
appendAudit(KEYS[2], ARGV[2], ARGV[3])
local record = redis.call('HMGET', KEYS[1], 'id', 'name')
emitEvent(KEYS[3], readEventContext(ARGV[4]), 'key.revoked', record[1],
  { 'name', record[2] or '', 'revoked_at', ARGV[1] })
publishChange(KEYS[4], record[1])
return { 'ok', ARGV[1] }
