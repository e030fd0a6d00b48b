--[[
  Fragment: appends one alert event to the account's event stream, from the script whose change causes it,
  so that an event exists exactly when its cause does: once, since the cause happens once (a settlement is
  settled once, a key revoked once), and never without it. The delivery workers read the stream as a consumer
  group (src/alerts/). An event's stream id is its time by the gateway's clock (the context's now; one past
  the stream's last id when that is not later), so that ids, event times and the trimming below all run on
  one clock. Events older than the context's keep_ms are trimmed as new ones are added: long after the last
  delivery attempt (24 h at most), never before.

  readEventContext(json) decodes the one argument every emitting script takes for its events, a JSON object
  the gateway builds (src/store/accounts/event-store.ts):
    now         the event's time (ms, the gateway's clock)
    keep_ms     how long events are kept
    thresholds  the default budget thresholds, percent, comma-separated ("80,95,100")

  emitEvent(streamKey, ctx, eventType, keyId, fields)
    streamKey  stream  {a:<account>}:events
    eventType  one of the types of src/core/event-types.ts
    keyId      the key the event is about, or '' for the account
    fields     the event's own fields as a flat list {name, value, …}; values are strings or integers (amounts
               in µ₽ are passed as they are: Redis writes a Lua number exactly, as %.17g, where Lua's own
               tostring would round it to 14 digits)
  Returns the event's stream id.
]]
local function readEventContext(json)
  local ctx = cjson.decode(json)
  return { now = tonumber(ctx.now), keepMs = tonumber(ctx.keep_ms), thresholds = ctx.thresholds or '' }
end

local function nextEventId(streamKey, now)
  local last = redis.call('XREVRANGE', streamKey, '+', '-', 'COUNT', 1)[1]
  if last then
    local ms, seq = string.match(last[1], '^(%d+)-(%d+)$')
    if now <= tonumber(ms) then return ms .. '-' .. string.format('%d', tonumber(seq) + 1) end
  end
  return string.format('%d', now) .. '-0'
end

local function emitEvent(streamKey, ctx, eventType, keyId, fields)
  local args = { 'XADD', streamKey, 'MINID', '~', ctx.now - ctx.keepMs, nextEventId(streamKey, ctx.now),
    'type', eventType, 'key', keyId or '', 'at', ctx.now }
  for i = 1, #fields do args[#args + 1] = fields[i] end
  return redis.call(unpack(args))
end
