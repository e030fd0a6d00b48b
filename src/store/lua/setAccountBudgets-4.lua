--[[
  Sets how an account pays and its own budget windows (docs/billing.md, "Account budgets"): its billing mode
  ('prepaid', 'budgeted' or 'both'), its windows (setWindows.lua: a window of a period it had keeps its
  spent amount, one of a new period takes what the gateway summed from its keys' daily usage) and the alert
  thresholds of its windows; records the change in the account's audit log and tells every replica, whose
  admission leases were sized by the old windows (publishChange.lua: '*', every lease of the account).

  The gateway summed the usage of new windows from the daily counters; a settlement landing between that
  read and this script would be missing from the sum, so the gateway also passes the account's count of
  requests this month as it read it with them: if it has moved (a settlement), this script changes nothing
  and answers 'conflict', and the gateway reads again and retries.

  KEYS[1]  account hash        {a:<account>}:account
  KEYS[2]  audit log list      {a:<account>}:audit
  KEYS[3]  the account's month hash  {a:<account>}:month:<YYYY-MM> (its requests count: see above)
  KEYS[4]  change channel      {a:<account>}:changes

  ARGV[1]  billing mode: 'prepaid' | 'budgeted' | 'both'
  ARGV[2]  the windows: a JSON list of {period, budget, spent, period_start} (strings); '[]' for none
  ARGV[3]  alert thresholds of the windows: 'default' (the configured ones), '' (none), percents "50,80,100",
           or 'keep' (as they are)
  ARGV[4]  the month hash's requests count as read with the usage ('' if it had none)
  ARGV[5]  audit entry (JSON)
  ARGV[6]  most audit entries kept

  Returns  {'ok'} | {'account_not_found'} | {'conflict'}
]]
--- @include "appendAudit"
--- @include "publishChange"
--- @include "setWindows"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'account_not_found' }
end
if (redis.call('HGET', KEYS[3], 'requests') or '') ~= ARGV[4] then
  return { 'conflict' }
end
if ARGV[1] == 'prepaid' then redis.call('HDEL', KEYS[1], 'billing')
else redis.call('HSET', KEYS[1], 'billing', ARGV[1]) end
setWindows(KEYS[1], cjson.decode(ARGV[2]), false)
if ARGV[3] == 'default' then redis.call('HDEL', KEYS[1], 'alert_at')
elseif ARGV[3] ~= 'keep' then redis.call('HSET', KEYS[1], 'alert_at', ARGV[3]) end
appendAudit(KEYS[2], ARGV[5], ARGV[6])
publishChange(KEYS[4], '*')
return { 'ok' }
