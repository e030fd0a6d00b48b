--- @include "budgetWindows"
--[[
  Fragment: gives a key or an account a new list of budget windows (budgetWindows.lua has their fields), in
  the order given, from the first slot on; slots beyond the list are emptied.

  A window whose period the hash already had keeps that window's spent amount, period start and announced
  thresholds, read here, in the same script: a settlement cannot slip in between. A window of a new period
  takes the spent amount the gateway summed from the daily usage counters (the caller makes sure no
  settlement landed since it read them: see updateKey-4.lua and setAccountBudgets-4.lua).

  A key keeps its first slot's period, spent amount and start when it is left without windows (they are
  tracked without a budget, budgetWindows.lua); an account keeps nothing.

  hashKey    hash  {a:<account>}:key:<keyId> or {a:<account>}:account
  windows    a list of { period = 'day'|'week'|'month', budget = µ₽, spent = µ₽, period_start = ms } (strings),
             at most three, each period at most once
  keepFirst  true for a key
]]
local function setWindows(hashKey, windows, keepFirst)
  local existing = {}
  for slot, suffix in ipairs(WINDOW_SUFFIXES) do
    local r = redis.call('HMGET', hashKey, 'period' .. suffix, 'spent' .. suffix, 'period_start' .. suffix,
      'alert_fired' .. suffix)
    if r[1] and (slot == 1 or redis.call('HEXISTS', hashKey, 'budget' .. suffix) == 1) then
      existing[r[1]] = { spent = r[2] or '0', start = r[3] or '0', fired = r[4] }
    end
  end
  for slot, suffix in ipairs(WINDOW_SUFFIXES) do
    if not (keepFirst and slot == 1 and #windows == 0) then
      redis.call('HDEL', hashKey, 'budget' .. suffix, 'period' .. suffix, 'spent' .. suffix,
        'period_start' .. suffix, 'alert_fired' .. suffix)
    else
      redis.call('HDEL', hashKey, 'budget', 'alert_fired')
    end
  end
  for slot, w in ipairs(windows) do
    local suffix = WINDOW_SUFFIXES[slot]
    local kept = existing[w.period]
    local spent, start = w.spent, w.period_start
    if kept then spent, start = kept.spent, kept.start end
    redis.call('HSET', hashKey, 'budget' .. suffix, w.budget, 'period' .. suffix, w.period,
      'spent' .. suffix, spent, 'period_start' .. suffix, start)
    if kept and kept.fired then redis.call('HSET', hashKey, 'alert_fired' .. suffix, kept.fired) end
  end
end
