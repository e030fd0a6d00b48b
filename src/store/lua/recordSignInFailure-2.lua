--[[
  Records a failed sign-in of one subject (an e-mail, or a client address) and locks the subject once it has
  failed `limit` times within the window: the lock lasts `firstLock` the first time and doubles with each
  lockout after it (up to `longestLock`), so that guessing slows down the longer it goes on. The failures
  that caused a lockout are cleared with it: after the lock, the subject has `limit` tries again. Lockouts are
  remembered for `memory` after the last one. Callers refuse a subject while its lock holds (reading
  locked_until), and verify no password meanwhile.

  KEYS[1]  failures zset       {f:<subject>}:failures   member and score: time of the failure (ms)
  KEYS[2]  lock hash           {f:<subject>}:lock       locked_until (ms), lockouts, seq

  ARGV[1]  now (ms)
  ARGV[2]  window (ms)
  ARGV[3]  limit: failures allowed within the window
  ARGV[4]  firstLock (ms)
  ARGV[5]  longestLock (ms)
  ARGV[6]  memory (ms)

  Returns  {lockMs}: how long the subject is now locked, 0 when it is not
]]

local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
redis.call('ZADD', KEYS[1], now, now .. ':' .. seq)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('PEXPIRE', KEYS[1], window)
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[6]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  return { 0 }
end
local lockouts = redis.call('HINCRBY', KEYS[2], 'lockouts', 1)
local lock = math.min(tonumber(ARGV[4]) * math.pow(2, lockouts - 1), tonumber(ARGV[5]))
redis.call('HSET', KEYS[2], 'locked_until', now + lock)
redis.call('DEL', KEYS[1])
redis.call('PEXPIRE', KEYS[2], lock + tonumber(ARGV[6]))
return { lock }
