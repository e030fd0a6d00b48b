--- @include "emitEvent"
--- @include "budgetWindows"
--[[
  Fragment: announces each budget threshold the spent amount of a key's or an account's budget window has
  reached in its current period, once per threshold, window and period: budget.threshold events. Called by
  settle after it has charged a request, with the windows it charged (budgetWindows.lua).

  The thresholds are the hash's alert_at field (percent, comma-separated, ascending; '' for none) or, without
  one, the context's defaults. The thresholds already announced for a window are kept in alert_fired (first
  window), alert_fired_2 or alert_fired_3 as "<period_start>:<budget>:<t1>,<t2>…"; a new period or a changed
  budget re-arms them all. The check is by state, not by crossing: a threshold the spent amount has reached
  and that is not yet announced is announced now, so a lowered budget is announced at the next charge.
  Thresholds are whole percents from 1 to 100, and the amount of t % of a budget b is ceil(b·t/100), computed
  in parts so that it stays exact in Lua's doubles for every budget up to MAX_MICROS.

  hashKey    hash    {a:<account>}:key:<keyId> or {a:<account>}:account
  streamKey  stream  {a:<account>}:events
  ctx        the event context (emitEvent.lua)
  windows    the windows as charged (budgetWindows.lua's readWindows, after chargeWindows)
  scope      'key' (the event names the key) or 'account' (the event names no key)

  Returns the number of events emitted.
]]
local function budgetAlerts(hashKey, streamKey, ctx, windows, scope)
  local r = redis.call('HMGET', hashKey, 'id', 'name', 'alert_at', 'alert_fired', 'alert_fired_2', 'alert_fired_3')
  if not r[1] then return 0 end
  local thresholds = r[3] or ctx.thresholds
  if thresholds == '' then return 0 end
  local subject = ''
  if scope == 'key' then subject = r[1] end

  local emitted = 0
  for _, w in ipairs(windows) do
    if w.budget then
      local budget = string.format('%d', w.budget)
      local arm = w.start .. ':' .. budget
      local announced = {}
      local firedField = 'alert_fired' .. WINDOW_SUFFIXES[w.slot]
      local firedBefore = r[3 + w.slot]
      if firedBefore then
        local firedArm, list = string.match(firedBefore, '^(%d+:%d+):(.*)$')
        if firedArm == arm then
          for t in string.gmatch(list, '%d+') do announced[t] = true end
        end
      end
      local b, s = w.budget, w.spent
      local hundredths = math.floor(b / 100)
      local rest = b - hundredths * 100
      local new, fired = 0, {}
      for t in string.gmatch(thresholds, '%d+') do
        if announced[t] then
          fired[#fired + 1] = t
        else
          local percent = tonumber(t)
          if s >= hundredths * percent + math.ceil(rest * percent / 100) then
            emitEvent(streamKey, ctx, 'budget.threshold', subject, {
              'name', r[2] or '', 'threshold', t, 'budget', budget, 'spent', string.format('%d', s),
              'period', w.period, 'period_start', w.start, 'scope', scope })
            new = new + 1
            fired[#fired + 1] = t
          end
        end
      end
      if new > 0 then
        redis.call('HSET', hashKey, firedField, arm .. ':' .. table.concat(fired, ','))
        emitted = emitted + new
      end
    end
  end
  return emitted
end
