--[[
  Emits the account's time-based events that are due — key.expiring 7 days and 1 day before a key's expiry,
  key.expired at it — each exactly once whatever the number of replicas: an entry of the due-events set
  (scheduleKeyEvents.lua) is removed in the same script that emits its event, and a replica that comes second
  finds it gone. The gateway reads the due members first (ZRANGEBYSCORE, so that it can name each key's record
  among the KEYS) and passes them here, where each is checked again.

  For each member "<keyId> <kind> <expiresAt>" still in the set and due:
  1. removes it;
  2. emits its event, unless the key is gone, revoked, or no longer expires at expiresAt (its expiry was
     changed, which scheduled new entries): then it is dropped.

  KEYS[1]  due events zset   {a:<account>}:events:due
  KEYS[2]  event stream      {a:<account>}:events
  KEYS[2 + i]  the key record of the i-th member, {a:<account>}:key:<keyId>

  ARGV[1]  event context (JSON, see emitEvent.lua); its `now` decides what is due
  ARGV[1 + i]  the i-th member

  Returns the number of events emitted.
]]
--- @include "emitEvent"

if #KEYS ~= #ARGV + 1 then
  return redis.error_reply('fireDueEvents: one key record per member, got ' .. #KEYS .. ' keys and ' .. #ARGV .. ' arguments')
end
local events = readEventContext(ARGV[1])
local emitted = 0
for i = 2, #ARGV do
  local member = ARGV[i]
  local due = redis.call('ZSCORE', KEYS[1], member)
  if due and tonumber(due) <= events.now then
    redis.call('ZREM', KEYS[1], member)
    local keyId, kind, expiresAt = string.match(member, '^(%S+) (%S+) (%d+)$')
    local key = redis.call('HMGET', KEYS[i + 1], 'id', 'name', 'expires_at', 'revoked_at')
    if keyId and key[1] == keyId and not key[4] and key[3] == expiresAt then
      if kind == 'expired' then
        emitEvent(KEYS[2], events, 'key.expired', keyId, { 'name', key[2] or '', 'expires_at', expiresAt })
      else
        local days = kind == 'expiring_7d' and '7' or '1'
        emitEvent(KEYS[2], events, 'key.expiring', keyId,
          { 'name', key[2] or '', 'expires_at', expiresAt, 'days', days })
      end
      emitted = emitted + 1
    end
  end
end
return emitted
