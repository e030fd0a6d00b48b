--[[
  Hands a delivery worker the account's events that need delivering now, each to one worker at a time:

  1. Events due again — a retry whose time has come, or one whose worker's lease ran out (the replica died
     mid-delivery) — from the delivery queue, oldest due first. Each is claimed in the consumer group for this
     worker (XCLAIM) and read back; one the stream no longer holds (trimmed) is dropped from the queue.
  2. Then new events: XREADGROUP hands each new entry of the stream to exactly one consumer of the group,
     whichever replica asks first. The group is created at the stream's start the first time.

  Every event handed out is put in the delivery queue at now + lease: that is the worker's lease. Nobody else
  is handed it before then; the worker's finishDelivery moves it to its retry time or removes it, and only
  while the lease it was given is still its own.

  KEYS[1]  event stream        {a:<account>}:events
  KEYS[2]  delivery queue zset {a:<account>}:events:retry   (stream id -> when it next needs a worker)

  ARGV[1]  consumer group
  ARGV[2]  this worker's consumer name
  ARGV[3]  now (ms)
  ARGV[4]  lease (ms)
  ARGV[5]  most events to hand out

  Returns a list of {streamId, isNew (1 or 0), {field, value, …}}; the lease of each ends at now + lease.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local group, consumer, now, lease, most = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.pcall('XGROUP', 'CREATE', KEYS[1], group, '0')

local claimed = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, most)) do
  local entry = redis.call('XRANGE', KEYS[1], id, id)[1]
  if entry then
    redis.call('XCLAIM', KEYS[1], group, consumer, 0, id, 'JUSTID')
    redis.call('ZADD', KEYS[2], now + lease, id)
    claimed[#claimed + 1] = { id, 0, entry[2] }
  else
    redis.call('ZREM', KEYS[2], id)
    redis.call('XACK', KEYS[1], group, id)
  end
end

if #claimed < most then
  local read = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', most - #claimed, 'STREAMS', KEYS[1], '>')
  if read and read[1] then
    for _, entry in ipairs(read[1][2]) do
      redis.call('ZADD', KEYS[2], now + lease, entry[1])
      claimed[#claimed + 1] = { entry[1], 1, entry[2] }
    end
  end
end
return claimed
