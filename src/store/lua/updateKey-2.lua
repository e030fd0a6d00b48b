--[[
  Changes a key's name, budget, period, model list or privacy switch, and records the change in the
  account's audit log. A revoked key cannot be changed. When the period changes, the spent amount becomes
  what the key spent in the new period so far (the gateway sums it from the daily usage counters) and the
  period starts anew.

  KEYS[1]  key record hash     {a:<account>}:key:<keyId>
  KEYS[2]  audit log list      {a:<account>}:audit

  ARGV[1]  changes as a JSON object whose values are all strings:
             name, budget ('' removes the budget), models (JSON list, '' allows all models),
             log_bodies ('1' | '0'), period with period_start and spent (µ₽) for the new period
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept

  Returns  {'ok'} | {'key_not_found'} | {'key_revoked'}
]]
--- @include "appendAudit"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'key_not_found' }
end
if redis.call('HEXISTS', KEYS[1], 'revoked_at') == 1 then
  return { 'key_revoked' }
end
local changes = cjson.decode(ARGV[1])
if changes.name then redis.call('HSET', KEYS[1], 'name', changes.name) end
if changes.log_bodies then redis.call('HSET', KEYS[1], 'log_bodies', changes.log_bodies) end
if changes.budget == '' then redis.call('HDEL', KEYS[1], 'budget')
elseif changes.budget then redis.call('HSET', KEYS[1], 'budget', changes.budget) end
if changes.models == '' then redis.call('HDEL', KEYS[1], 'models')
elseif changes.models then redis.call('HSET', KEYS[1], 'models', changes.models) end
if changes.period and changes.period ~= redis.call('HGET', KEYS[1], 'period') then
  redis.call('HSET', KEYS[1], 'period', changes.period, 'period_start', changes.period_start, 'spent', changes.spent)
end
appendAudit(KEYS[2], ARGV[2], ARGV[3])
return { 'ok' }
