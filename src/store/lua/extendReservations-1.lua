--[[
  Keeps the reservations of requests that are still running alive: moves their expiry forward, never
  back, and never brings back one that has been settled (XX: only ids still in the set). One that has
  already expired stays an 'expired' marker, only remembered longer.

  KEYS[1]  reservation expiries zset {a:<account>}:resv

  ARGV[1]  new expiry (ms)
  ARGV[2..] reservation ids

  Returns  the number of reservations extended
]]
local extended = 0
for i = 2, #ARGV do
  extended = extended + redis.call('ZADD', KEYS[1], 'XX', 'GT', 'CH', ARGV[1], ARGV[i])
end
return extended
