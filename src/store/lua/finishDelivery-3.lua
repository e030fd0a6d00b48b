--[[
  Records a delivery worker's attempt at one event and what comes next, if the worker still holds the event's
  lease (claimEvents-2.lua): the event's delivery queue entry still ends that lease. A worker whose lease ran
  out and was given to another changes nothing: the other worker's record is the one that counts.

  1. Writes the event's delivery state (one outcome per endpoint, JSON) with a lifetime as long as events'.
  2. When nothing is left to try: acknowledges the event in the consumer group and removes it from the
     delivery queue; otherwise puts it back in the queue for its next attempt.

  KEYS[1]  event stream        {a:<account>}:events
  KEYS[2]  delivery queue zset {a:<account>}:events:retry
  KEYS[3]  delivery state      {a:<account>}:delivery:<streamId>

  ARGV[1]  consumer group
  ARGV[2]  stream id
  ARGV[3]  the end of the lease the worker was given (ms)
  ARGV[4]  delivery state (JSON)
  ARGV[5]  its lifetime (ms)
  ARGV[6]  when to try again (ms), or '' when every endpoint is done with (delivered or given up)

  Returns  {'done'} | {'retry'} | {'lease_lost'}
]]
local lease = redis.call('ZSCORE', KEYS[2], ARGV[2])
if not lease or tonumber(lease) ~= tonumber(ARGV[3]) then
  return { 'lease_lost' }
end
redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[5])
if ARGV[6] == '' then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[2])
  return { 'done' }
end
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[2])
return { 'retry' }
