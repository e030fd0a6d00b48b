--[[
  Disables a key for a while, or enables it again. A disabled key is refused with key_disabled (403) but
  keeps everything — budget, spent amount, limits, value, history — and still answers /v1/key, so that its
  holder can see why. Unlike revocation this can be undone. Disabling a disabled key (or enabling an enabled
  one) changes and records nothing. Otherwise recorded in the audit log, and key.disabled or key.enabled is
  emitted.

  KEYS[1]  key record hash     {a:<account>}:key:<keyId>
  KEYS[2]  audit log list      {a:<account>}:audit
  KEYS[3]  event stream        {a:<account>}:events
  KEYS[4]  change channel      {a:<account>}:changes (sharded pub/sub: every replica drops its leases)

  ARGV[1]  now (ms) to disable the key, or '' to enable it
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept
  ARGV[4]  event context (JSON, see emitEvent.lua)

  Returns  {'ok', changed (1 | 0)} | {'key_not_found'} | {'key_revoked'}
]]
--- @include "appendAudit"
--- @include "publishChange"
--- @include "emitEvent"

local current = redis.call('HMGET', KEYS[1], 'id', 'revoked_at', 'disabled_at', 'name')
if not current[1] then return { 'key_not_found' } end
if current[2] then return { 'key_revoked' } end
local disable = ARGV[1] ~= ''
if disable == (current[3] ~= false) then return { 'ok', 0 } end
if disable then redis.call('HSET', KEYS[1], 'disabled_at', ARGV[1])
else redis.call('HDEL', KEYS[1], 'disabled_at') end
appendAudit(KEYS[2], ARGV[2], ARGV[3])
emitEvent(KEYS[3], readEventContext(ARGV[4]), disable and 'key.disabled' or 'key.enabled', current[1],
  { 'name', current[4] or '' })
publishChange(KEYS[4], current[1])
return { 'ok', 1 }
