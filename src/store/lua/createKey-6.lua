--[[
  Creates an API key record for an account, only while the account's balance is positive (where the balance
  limits the account: not for a budgeted account with a window, budgetWindows.lua) and no window of the
  account is used up, and records it
  in the account's audit log, schedules its time-based events (scheduleKeyEvents.lua) and emits key.created.
  Nothing is written when the account is missing, its balance is zero or less (where it counts) or one of its
  windows is used up. The key's value is never
  seen here, only its hash; the gateway stores the hash -> key mapping separately once this script has
  succeeded.

  KEYS[1]  account hash        {a:<account>}:account
  KEYS[2]  key record hash     {a:<account>}:key:<keyId>
  KEYS[3]  account's keys zset {a:<account>}:keys   (key id scored by creation time)
  KEYS[4]  audit log list      {a:<account>}:audit
  KEYS[5]  event stream        {a:<account>}:events
  KEYS[6]  due events zset     {a:<account>}:events:due

  ARGV[1]  now (ms), the creation time
  ARGV[2]  key id
  ARGV[3]  account id
  ARGV[4]  name
  ARGV[5]  hint (last characters of the key value)
  ARGV[6]  expiry (ms), or '' for never
  ARGV[7]  budget per period (µ₽), or '' for none
  ARGV[8]  period: 'day' | 'week' | 'month'
  ARGV[9]  start of the current period (ms)
  ARGV[10] allowed models as a JSON array, or '' for all models
  ARGV[11] log_bodies: '1' | '0'
  ARGV[12] audit entry (JSON)
  ARGV[13] most audit entries kept
  ARGV[14] budget alert thresholds: 'default' (the configured ones), '' (none) or percents "50,80,100"
  ARGV[15] event context (JSON, see emitEvent.lua)
  ARGV[16] SHA-256 of the key's value: the value requests must present (rotation replaces it)
  ARGV[17] limits as a JSON object of strings: rpm, tpm, max_parallel (each optional)
  ARGV[18] every budget window as a JSON list of {period, budget, spent, period_start} (strings; the first is
           ARGV[7]'s): more than one is written by setWindows.lua
  ARGV[19] the start of the current day, week and month (ms) as a JSON object {day, week, month} of strings

  Returns  {'ok'} | {'account_not_found'} | {'insufficient_balance', balance} | {'key_exists'}
           | {'budget_exceeded', period}   the account's window of that period is used up
           (an error reply naming a key of the wrong type in the way, before anything is written)
]]
--- @include "appendAudit"
--- @include "requireTypes"
--- @include "emitEvent"
--- @include "scheduleKeyEvents"
--- @include "setWindows"

local wrongType = requireTypes({ [KEYS[1]] = 'hash', [KEYS[2]] = 'hash', [KEYS[3]] = 'zset', [KEYS[4]] = 'list', [KEYS[5]] = 'stream',
  [KEYS[6]] = 'zset' })
if wrongType then return wrongType end

local balance = redis.call('HGET', KEYS[1], 'balance')
if not balance then
  return { 'account_not_found' }
end
local accountWindows, account = readWindows(KEYS[1], cjson.decode(ARGV[19]), false, { 'billing' })
local full = refusingWindow(accountWindows, 0, 0)
if full then
  return { 'budget_exceeded', full.period }
end
if balanceRequired(account[1], accountWindows) and tonumber(balance) <= 0 then
  return { 'insufficient_balance', tonumber(balance) }
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return { 'key_exists' }
end
redis.call('HSET', KEYS[2],
  'id', ARGV[2], 'account', ARGV[3], 'name', ARGV[4], 'hint', ARGV[5], 'created_at', ARGV[1],
  'period', ARGV[8], 'spent', '0', 'period_start', ARGV[9], 'log_bodies', ARGV[11], 'hash', ARGV[16])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], 'expires_at', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[2], 'budget', ARGV[7]) end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[2], 'models', ARGV[10]) end
if ARGV[14] ~= 'default' then redis.call('HSET', KEYS[2], 'alert_at', ARGV[14]) end
for limit, value in pairs(cjson.decode(ARGV[17])) do redis.call('HSET', KEYS[2], limit, value) end
local windows = cjson.decode(ARGV[18])
if #windows > 1 then setWindows(KEYS[2], windows, true) end
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2])
appendAudit(KEYS[4], ARGV[12], ARGV[13])
local events = readEventContext(ARGV[15])
scheduleKeyEvents(KEYS[6], ARGV[2], nil, ARGV[6], events.now)
emitEvent(KEYS[5], events, 'key.created', ARGV[2],
  { 'name', ARGV[4], 'expires_at', ARGV[6], 'budget', ARGV[7], 'period', ARGV[8] })
return { 'ok' }
