--[[
  Fragment: keeps a key's time-based events in the account's due-events set, from which the delivery workers
  emit them when due (fireDueEvents-n.lua): key.expiring 7 days and 1 day before the key's expiry, key.expired
  at it. Each is a member "<keyId> <kind> <expiresAt>" (kind expiring_7d, expiring_1d or expired) scored by
  its time, so that an entry left from an earlier expiry can never fire for the new one. Warnings whose time
  has passed when they are scheduled are left out: a key made to last three days gets no 7-day warning. The
  entries of the previous expiry are removed.

  dueKey        zset  {a:<account>}:events:due
  keyId         the key's id
  oldExpiresAt  its previous expiry (ms, a string), or nil / '' for none
  newExpiresAt  its expiry now (ms, a string), or nil / '' for never
  now           the current time (ms, a number)
]]
local KEY_WARNINGS = { { 'expiring_7d', 7 * 86400000 }, { 'expiring_1d', 86400000 } }

local function scheduleKeyEvents(dueKey, keyId, oldExpiresAt, newExpiresAt, now)
  if oldExpiresAt and oldExpiresAt ~= '' then
    redis.call('ZREM', dueKey, keyId .. ' expiring_7d ' .. oldExpiresAt, keyId .. ' expiring_1d ' .. oldExpiresAt,
      keyId .. ' expired ' .. oldExpiresAt)
  end
  if newExpiresAt and newExpiresAt ~= '' then
    local at = tonumber(newExpiresAt)
    for _, warning in ipairs(KEY_WARNINGS) do
      if at - warning[2] > now then
        redis.call('ZADD', dueKey, at - warning[2], keyId .. ' ' .. warning[1] .. ' ' .. newExpiresAt)
      end
    end
    redis.call('ZADD', dueKey, at, keyId .. ' expired ' .. newExpiresAt)
  end
end
