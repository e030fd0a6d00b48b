--[[
  Changes how a key's requests share a full model server within its account (docs/fair-sharing.md) — the
  priority they carry to the model server, the longest they wait for their turn — and records the change in
  the account's audit log. A revoked key cannot be changed. Gateways read these fields through a short cache.

  KEYS[1]  key record hash     {a:<account>}:key:<keyId>
  KEYS[2]  audit log list      {a:<account>}:audit

  ARGV[1]  changes as a JSON object whose values are all strings: priority (a whole number, lower first; ''
           removes it, and the account's applies), max_wait_ms (a whole number from 1; '' removes it)
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept

  Returns  {'ok'} | {'key_not_found'} | {'key_revoked'}
]]
--- @include "appendAudit"

local current = redis.call('HMGET', KEYS[1], 'id', 'revoked_at')
if not current[1] then return { 'key_not_found' } end
if current[2] then return { 'key_revoked' } end
local changes = cjson.decode(ARGV[1])
for _, field in ipairs({ 'priority', 'max_wait_ms' }) do
  local value = changes[field]
  if value == '' then redis.call('HDEL', KEYS[1], field)
  elseif value then redis.call('HSET', KEYS[1], field, value) end
end
appendAudit(KEYS[2], ARGV[2], ARGV[3])
return { 'ok' }
