--[[
  Changes a key's name, budget, period, model list, privacy switch, expiry or limits (requests and tokens
  per minute, requests in flight), and records the change in the account's audit log. A revoked key cannot
  be changed; an expired one can (a new expiry brings it back). A changed per-minute limit starts its
  allowance afresh: its state is kept in units of the old limit.

  When the period changes, the spent amount becomes what the key spent in the new period so far, which the
  gateway sums from the daily usage counters, and the period starts anew. A settlement that lands between
  that sum and this script would be overwritten and lost, so the gateway also passes the key's spent amount
  and period start as it read them together with the usage: if either has moved since (a settlement, a
  period roll-over, another change), this script changes nothing and answers 'conflict', and the gateway
  reads again and retries.

  New budget windows (changes.windows) replace the key's windows (setWindows.lua); a window of a period the
  key had keeps its spent amount, and one of a new period takes what the gateway summed from the usage, so
  they are applied under the same check as a period change.

  A new expiry reschedules the key's time-based events (scheduleKeyEvents.lua).

  KEYS[1]  key record hash     {a:<account>}:key:<keyId>
  KEYS[2]  audit log list      {a:<account>}:audit
  KEYS[3]  due events zset     {a:<account>}:events:due
  KEYS[4]  change channel      {a:<account>}:changes (sharded pub/sub: every replica drops its leases)

  ARGV[1]  changes as a JSON object whose values are all strings:
             name, budget ('' removes the budget), models (JSON list, '' allows all models),
             log_bodies ('1' | '0'), expires_at (ms; '' for never), rpm, tpm, max_parallel ('' removes the
             limit), period with period_start and spent (µ₽) for the new period, alert_at (percents
             "50,80,100", '' for no budget alerts, 'default' for the configured thresholds),
             windows (a list of {period, budget, spent, period_start}, strings: every window, [] for none;
             given without budget and period)
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept
  ARGV[4]  the key's spent field as read with the usage summed into `spent` ('' if it had none)
  ARGV[5]  the key's period_start field as read with it ('' if it had none)
           (both checked only when the period or the windows change)
  ARGV[6]  now (ms)

  Returns  {'ok'} | {'key_not_found'} | {'key_revoked'}
           | {'conflict'}   the key was charged or its period moved since it was read; nothing changed
]]
--- @include "appendAudit"
--- @include "publishChange"
--- @include "scheduleKeyEvents"
--- @include "setWindows"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'key_not_found' }
end
if redis.call('HEXISTS', KEYS[1], 'revoked_at') == 1 then
  return { 'key_revoked' }
end
local changes = cjson.decode(ARGV[1])
local newPeriod = false
if changes.period then
  local current = redis.call('HMGET', KEYS[1], 'period', 'spent', 'period_start')
  if changes.period ~= current[1] then
    if (current[2] or '') ~= ARGV[4] or (current[3] or '') ~= ARGV[5] then
      return { 'conflict' }
    end
    newPeriod = true
  end
end
if changes.windows then
  local current = redis.call('HMGET', KEYS[1], 'spent', 'period_start')
  if (current[1] or '') ~= ARGV[4] or (current[2] or '') ~= ARGV[5] then
    return { 'conflict' }
  end
  setWindows(KEYS[1], changes.windows, true)
end
if changes.name then redis.call('HSET', KEYS[1], 'name', changes.name) end
if changes.log_bodies then redis.call('HSET', KEYS[1], 'log_bodies', changes.log_bodies) end
if changes.budget == '' then redis.call('HDEL', KEYS[1], 'budget')
elseif changes.budget then redis.call('HSET', KEYS[1], 'budget', changes.budget) end
if changes.models == '' then redis.call('HDEL', KEYS[1], 'models')
elseif changes.models then redis.call('HSET', KEYS[1], 'models', changes.models) end
if changes.expires_at then
  local key = redis.call('HMGET', KEYS[1], 'id', 'expires_at')
  scheduleKeyEvents(KEYS[3], key[1], key[2], changes.expires_at, tonumber(ARGV[6]))
end
if changes.expires_at == '' then redis.call('HDEL', KEYS[1], 'expires_at')
elseif changes.expires_at then redis.call('HSET', KEYS[1], 'expires_at', changes.expires_at) end
for _, limit in ipairs({ 'rpm', 'tpm' }) do
  if changes[limit] then
    if changes[limit] == '' then redis.call('HDEL', KEYS[1], limit)
    else redis.call('HSET', KEYS[1], limit, changes[limit]) end
    redis.call('HDEL', KEYS[1], limit .. '_tat')
  end
end
if changes.max_parallel == '' then redis.call('HDEL', KEYS[1], 'max_parallel')
elseif changes.max_parallel then redis.call('HSET', KEYS[1], 'max_parallel', changes.max_parallel) end
if changes.alert_at == 'default' then redis.call('HDEL', KEYS[1], 'alert_at')
elseif changes.alert_at then redis.call('HSET', KEYS[1], 'alert_at', changes.alert_at) end
if newPeriod then
  redis.call('HSET', KEYS[1], 'period', changes.period, 'period_start', changes.period_start, 'spent', changes.spent)
end
publishChange(KEYS[4], redis.call('HGET', KEYS[1], 'id'))
appendAudit(KEYS[2], ARGV[2], ARGV[3])
return { 'ok' }
