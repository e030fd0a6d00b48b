--[[
  Fragment: records a change in the account's audit log (newest first, capped), in the same script as the
  change itself, so that no audited change can happen without its entry.

  auditKey  list  {a:<account>}:audit
  entry     the entry as JSON, built by the gateway (who, when, what; never a key value or token)
  cap       most entries kept
]]
local function appendAudit(auditKey, entry, cap)
  redis.call('LPUSH', auditKey, entry)
  redis.call('LTRIM', auditKey, 0, tonumber(cap) - 1)
end
