--[[
  Changes how an account shares a full model server (docs/fair-sharing.md) — its weight in the fair queue, the
  priority its requests carry to the model server, the longest they wait for their turn — and records the
  change in the account's audit log. Gateways read these fields through a short cache, so that a change
  reaches every replica within seconds without a round trip on the request path.

  KEYS[1]  account hash        {a:<account>}:account
  KEYS[2]  audit log list      {a:<account>}:audit

  ARGV[1]  changes as a JSON object whose values are all strings: weight (a whole number from 1), priority
           (a whole number, lower first; '' removes it), max_wait_ms (a whole number from 1; '' removes it)
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept

  Returns  {'ok'} | {'account_not_found'}
]]
--- @include "appendAudit"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'account_not_found' }
end
local changes = cjson.decode(ARGV[1])
for _, field in ipairs({ 'weight', 'priority', 'max_wait_ms' }) do
  local value = changes[field]
  if value == '' then redis.call('HDEL', KEYS[1], field)
  elseif value then redis.call('HSET', KEYS[1], field, value) end
end
appendAudit(KEYS[2], ARGV[2], ARGV[3])
return { 'ok' }
