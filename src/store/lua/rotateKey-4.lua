--[[
  Gives a key a new value: requests must present the new one from now on, and the old one keeps working
  until its grace period ends (then it is refused with key_rotated). The key keeps its id, name, budget,
  spent amount, limits and history; only its value changes. Rotating again during a grace period ends that
  grace at once: only the value being replaced now gets a grace of its own. Recorded in the audit log;
  emits key.rotated.

  KEYS[1]  key record hash     {a:<account>}:key:<keyId>
  KEYS[2]  audit log list      {a:<account>}:audit
  KEYS[3]  event stream        {a:<account>}:events
  KEYS[4]  change channel      {a:<account>}:changes (sharded pub/sub: every replica drops its leases)

  ARGV[1]  SHA-256 of the new value
  ARGV[2]  hint of the new value (its last characters)
  ARGV[3]  end of the old value's grace period (ms; now for none)
  ARGV[4]  audit entry (JSON)
  ARGV[5]  most audit entries kept
  ARGV[6]  event context (JSON, see emitEvent.lua)

  A key created before values were recorded has no hash: its old value is then accepted during the grace
  period as '*', any value that maps to the key.

  Returns  {'ok'} | {'key_not_found'} | {'key_revoked'}
]]
--- @include "appendAudit"
--- @include "publishChange"
--- @include "emitEvent"

local current = redis.call('HMGET', KEYS[1], 'id', 'revoked_at', 'hash', 'name', 'hint')
if not current[1] then return { 'key_not_found' } end
if current[2] then return { 'key_revoked' } end
redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'hint', ARGV[2],
  'previous_hash', current[3] or '*', 'previous_until', ARGV[3])
appendAudit(KEYS[2], ARGV[4], ARGV[5])
local events = readEventContext(ARGV[6])
emitEvent(KEYS[3], events, 'key.rotated', current[1], { 'name', current[4] or '', 'previous_hint',
  current[5] or '', 'hint', ARGV[2], 'grace_until', tonumber(ARGV[3]) > events.now and ARGV[3] or '' })
publishChange(KEYS[4], current[1])
return { 'ok' }
