--- @include "emitEvent"
--[[
  Fragment: the account's balance alerts. balance.low is announced when the balance falls below the account's
  low_balance mark (if it has one), balance.exhausted when it reaches zero or less; each once, until a top-up
  lifts the balance back to the mark (for balance.low) or above zero (for balance.exhausted), which re-arms it.
  The account hash keeps alert_low and alert_exhausted while they are announced and not re-armed.

  balanceAlerts(accountKey, streamKey, ctx): after a charge (settle). Returns the number of events emitted;
  both when one charge takes the balance from above the mark to zero or less.
  rearmBalanceAlerts(accountKey, balance): after a top-up, with the new balance (µ₽, a number).

  accountKey  hash    {a:<account>}:account
  streamKey   stream  {a:<account>}:events
  ctx         the event context (emitEvent.lua)
]]
local function balanceAlerts(accountKey, streamKey, ctx)
  local r = redis.call('HMGET', accountKey, 'balance', 'low_balance', 'alert_low', 'alert_exhausted')
  local balance = r[1] or '0'
  local emitted = 0
  if r[2] and not r[3] and tonumber(balance) < tonumber(r[2]) then
    emitEvent(streamKey, ctx, 'balance.low', '', { 'balance', balance, 'low_balance', r[2] })
    redis.call('HSET', accountKey, 'alert_low', '1')
    emitted = emitted + 1
  end
  if not r[4] and tonumber(balance) <= 0 then
    emitEvent(streamKey, ctx, 'balance.exhausted', '', { 'balance', balance })
    redis.call('HSET', accountKey, 'alert_exhausted', '1')
    emitted = emitted + 1
  end
  return emitted
end

local function rearmBalanceAlerts(accountKey, balance)
  local r = redis.call('HMGET', accountKey, 'low_balance', 'alert_low', 'alert_exhausted')
  if r[2] and (not r[1] or balance >= tonumber(r[1])) then redis.call('HDEL', accountKey, 'alert_low') end
  if r[3] and balance > 0 then redis.call('HDEL', accountKey, 'alert_exhausted') end
end
