--[[
  Finds a request in a key's recent-requests list (newest first) by its id, so that only that entry leaves
  Redis rather than the whole list, bodies and all. Reads the list a hundred entries at a time and stops at the
  first match: a client's own X-Request-Id may have been used twice, and the latest request is the one meant.

  KEYS[1]  recent requests list   {a:<account>}:reqlog:<keyId>

  ARGV[1]  the text an entry with that id holds: "request_id":"<id>", (the entry's JSON, as the gateway writes
           it, has the field in that form)

  Returns  the entry (JSON), or nil
]]
local from = 0
while true do
  local entries = redis.call('LRANGE', KEYS[1], from, from + 99)
  for _, entry in ipairs(entries) do
    if string.find(entry, ARGV[1], 1, true) then return entry end
  end
  if #entries < 100 then return nil end
  from = from + 100
end
