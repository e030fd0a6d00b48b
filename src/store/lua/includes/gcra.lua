--[[
  Fragment: the generic cell rate algorithm (GCRA) for a limit of `limit` units a minute, with a whole
  minute's allowance available at once. Its state is the theoretical arrival time (TAT): the time at which the
  key's allowance would be whole again. Admitting `cost` units moves it `cost` × (60 000 / limit) ms later,
  from now at the earliest; a request is admitted when the TAT it would leave is at most a minute ahead. With
  no fixed window there is no edge to game, and one number per limit holds the state.

  The TAT is kept exactly in integers: whole milliseconds `ms` and a remainder `rem` in 1/limit ms
  (0 <= rem < limit), so that a limit of 7 a minute admits 7, not 6 after rounding. Every computation is
  relative to now, so the numbers stay far below 2^53.

  gcraAdmit(ms, rem, now, limit, cost)
    -> true, newMs, newRem                when admitted
    -> false, waitMs                      when not: how long until `cost` fits (more than a minute if never)
  gcraRefund(ms, rem, now, limit, cost)   -> newMs, newRem: `cost` units given back (or taken, if negative:
                                             the TAT may then run more than a minute ahead, and the key waits)
  gcraRemaining(ms, rem, now, limit)      -> units that would fit now, ms until the allowance is whole again
]]
local MINUTE_MS = 60000

local function gcraAdmit(ms, rem, now, limit, cost)
  if ms < now then ms, rem = now, 0 end
  local total = (ms - now) * limit + rem + cost * MINUTE_MS
  local over = total - MINUTE_MS * limit
  if over > 0 then return false, math.ceil(over / limit) end
  return true, now + math.floor(total / limit), total % limit
end

local function gcraRefund(ms, rem, now, limit, cost)
  if ms < now then ms, rem = now, 0 end
  local total = (ms - now) * limit + rem - cost * MINUTE_MS
  if total <= 0 then return now, 0 end
  return now + math.floor(total / limit), total % limit
end

local function gcraRemaining(ms, rem, now, limit)
  if ms < now then ms, rem = now, 0 end
  local used = (ms - now) * limit + rem
  return math.floor((MINUTE_MS * limit - used) / MINUTE_MS), math.ceil(used / limit)
end
