--- @include "emitEvent"
--[[
  Fragment: announces each budget threshold a key's spent amount has reached in its current period, once per
  threshold and period: budget.threshold events. Called by settle after it has charged a request.

  A key's thresholds are its alert_at field (percent, comma-separated, ascending; '' for none) or, without
  one, the context's defaults. The thresholds already announced are kept in alert_fired as
  "<period_start>:<budget>:<t1>,<t2>…"; a new period or a changed budget re-arms them all. The check is by
  state, not by crossing: a threshold the spent amount has reached and that is not yet announced is
  announced now, so a lowered budget is announced at the next charge. Thresholds are whole percents from 1
  to 100, and the amount of t % of a budget b is ceil(b·t/100), computed in parts so that it stays exact in
  Lua's doubles for every budget up to MAX_MICROS.

  keyKey     hash    {a:<account>}:key:<keyId>
  streamKey  stream  {a:<account>}:events
  ctx        the event context (emitEvent.lua)

  Returns the number of events emitted.
]]
local function budgetAlerts(keyKey, streamKey, ctx)
  local r = redis.call('HMGET', keyKey,
    'id', 'name', 'budget', 'spent', 'period', 'period_start', 'alert_at', 'alert_fired')
  local keyId, budget, spent, periodStart, thresholds = r[1], r[3], r[4] or '0', r[6] or '0', r[7]
  if not keyId or not budget then return 0 end
  thresholds = thresholds or ctx.thresholds
  if thresholds == '' then return 0 end

  local arm = periodStart .. ':' .. budget
  local announced = {}
  if r[8] then
    local firedArm, list = string.match(r[8], '^(%d+:%d+):(.*)$')
    if firedArm == arm then
      for t in string.gmatch(list, '%d+') do announced[t] = true end
    end
  end

  local b, s = tonumber(budget), tonumber(spent)
  local hundredths = math.floor(b / 100)
  local rest = b - hundredths * 100
  local emitted, fired = 0, {}
  for t in string.gmatch(thresholds, '%d+') do
    if announced[t] then
      fired[#fired + 1] = t
    else
      local percent = tonumber(t)
      if s >= hundredths * percent + math.ceil(rest * percent / 100) then
        emitEvent(streamKey, ctx, 'budget.threshold', keyId, {
          'name', r[2] or '', 'threshold', t, 'budget', budget, 'spent', spent,
          'period', r[5] or 'month', 'period_start', periodStart })
        emitted = emitted + 1
        fired[#fired + 1] = t
      end
    end
  end
  if emitted > 0 then
    redis.call('HSET', keyKey, 'alert_fired', arm .. ':' .. table.concat(fired, ','))
  end
  return emitted
end
