--[[
  Sets or clears an account's low-balance mark, and records it in the account's audit log. A new mark re-arms
  balance.low (balanceAlerts.lua): if the balance is already below it, the next charge announces it.

  KEYS[1]  account hash        {a:<account>}:account
  KEYS[2]  audit log list      {a:<account>}:audit

  ARGV[1]  low-balance mark (µ₽, integer > 0), or '' for none
  ARGV[2]  audit entry (JSON)
  ARGV[3]  most audit entries kept

  Returns  {'ok'} | {'account_not_found'}
]]
--- @include "appendAudit"

if redis.call('EXISTS', KEYS[1]) == 0 then
  return { 'account_not_found' }
end
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'low_balance', 'alert_low')
else
  redis.call('HSET', KEYS[1], 'low_balance', ARGV[1])
  redis.call('HDEL', KEYS[1], 'alert_low')
end
appendAudit(KEYS[2], ARGV[2], ARGV[3])
return { 'ok' }
