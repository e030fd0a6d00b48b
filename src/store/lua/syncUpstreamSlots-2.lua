--[[
  One replica's count of the model server's places (upstream.sharedInFlight, docs/fair-sharing.md), brought
  up to date and resized in one step. Every replica sends what it uses and what waits on it; the places are
  divided among the replicas that want some by max-min fairness (water-filling: a replica that wants less than
  an equal part gets what it wants, the rest is split among the others), and this replica's count becomes
  what it uses and waits for, within its part and within what the others leave free — never less than what it
  uses (a running request is not taken back: a replica above its part gives places back as its requests end).
  The sum of the counts never exceeds the limit.

  A replica's count expires unless it is sent again (each replica does so every few seconds while it holds
  places): a replica that dies gives its places back at the expiry, which bounds how long the shared count
  can overstate what the model server runs. Counts are absolute, never increments, so a reply lost on the way
  costs nothing: the next sync sets the count right.

  1. Forgets the replicas whose count has expired.
  2. Reads the other replicas' counts and demands.
  3. Works out this replica's part of the limit by water-filling over every demand, its own included.
  4. Sets its count to max(in use, min(in use + waiting, its part rounded up, limit - the others' counts)), and
     its demand; with nothing in use and nothing waiting, removes it.

  KEYS[1]  counts hash         {upstream}:slots        replica id -> "<held> <demand>"
  KEYS[2]  expiries zset       {upstream}:slots:alive  replica id -> when its count expires (ms)

  ARGV[1]  now (ms)
  ARGV[2]  when this replica's count expires unless sent again (ms)
  ARGV[3]  the limit (upstream.maxInFlight)
  ARGV[4]  the replica's id
  ARGV[5]  requests of the replica holding a place now
  ARGV[6]  requests of the replica waiting for one

  Returns  {held, part, total}: this replica's count now, its part of the limit (rounded up), and the sum of
           every replica's count
]]

local now, limit = tonumber(ARGV[1]), tonumber(ARGV[3])
local replica, inUse, waiting = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1])
for _, id in ipairs(expired) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end

local demand = inUse + waiting
local demands = { demand }
local othersHeld = 0
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  if entries[i] ~= replica then
    local held, wanted = string.match(entries[i + 1], '^(%d+) (%d+)$')
    othersHeld = othersHeld + tonumber(held or '0')
    table.insert(demands, tonumber(wanted or '0'))
  end
end

-- Water-filling: in ascending order of demand, each gets the smaller of its demand and an equal part of
-- what is left.
table.sort(demands)
local left, part = limit, 0
for i, wanted in ipairs(demands) do
  local equal = left / (#demands - i + 1)
  local given = math.min(wanted, equal)
  if wanted == demand then part = given end
  left = left - given
end
part = math.ceil(part)

local held = math.max(inUse, math.min(demand, part, limit - othersHeld))
if held == 0 and demand == 0 then
  redis.call('HDEL', KEYS[1], replica)
  redis.call('ZREM', KEYS[2], replica)
else
  redis.call('HSET', KEYS[1], replica, held .. ' ' .. demand)
  redis.call('ZADD', KEYS[2], ARGV[2], replica)
end
return { held, part, othersHeld + held }
