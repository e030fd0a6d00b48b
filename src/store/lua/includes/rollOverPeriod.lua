--[[
  Fragment: brings a key's spent amount into the current budget period. The caller passes the start of
  the current day, week and month (ms, strings) as computed by the gateway in the billing time zone; when
  the start for the key's period is later than the one stored with the key, the spent amount starts again
  from zero. Starts only ever move forward, so a replica whose clock lags a little cannot undo a reset.

  keyKey        hash of the key record (fields period, spent, period_start)
  periodStarts  table { day = ..., week = ..., month = ... }

  Returns the spent amount (µ₽, number) of the current period, or nil when the key record does not exist.
]]
local function rollOverPeriod(keyKey, periodStarts)
  local fields = redis.call('HMGET', keyKey, 'period', 'spent', 'period_start')
  local period = fields[1]
  if not period then return nil end
  local current = periodStarts[period]
  if tonumber(current) > tonumber(fields[3] or '0') then
    redis.call('HSET', keyKey, 'spent', '0', 'period_start', current)
    return 0
  end
  return tonumber(fields[2] or '0')
end
