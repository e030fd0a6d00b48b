--[[
  Fragment: brings a key's spent amount into the current budget period. The caller passes the key's
  period, spent amount and period start as read from its record, and the start of the current day, week
  and month (ms, strings) as computed by the gateway in the billing time zone. When the start for the key's
  period is later than the stored one, the spent amount starts again from zero. Starts only ever move
  forward, so a replica whose clock lags a little cannot undo a reset.

  Returns the spent amount (µ₽, a number) of the current period.
]]
local function rollOverPeriod(keyKey, period, spent, periodStart, periodStarts)
  local current = periodStarts[period or 'month']
  if tonumber(current) > tonumber(periodStart or '0') then
    redis.call('HSET', keyKey, 'spent', '0', 'period_start', current)
    return 0
  end
  return tonumber(spent or '0')
end
