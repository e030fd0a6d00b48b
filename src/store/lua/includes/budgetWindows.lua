--[[
  Fragment: the budget windows of a key or of an account (docs/billing.md, "Budget windows"). A hash holds up
  to three windows, each in four fields: budget (µ₽ per period), period ('day' | 'week' | 'month'), spent (µ₽ in
  the period that started at period_start) and period_start (ms). The first window's fields have no suffix,
  the second's end in _2, the third's in _3: a key stored before several windows existed has exactly the first
  window's fields, so it reads as a key with one window and nothing is rewritten (docs/billing.md,
  "Migration"). A slot without a budget field is not a window; windows are written from the first slot on.

  A key's first slot is tracked even without a budget (its spent amount is what the dashboard shows for the
  key's period), so `trackFirst` keeps it in the list with budget nil: it is charged, never checked.

  readWindows(hashKey, starts, trackFirst, extra)
    reads the windows — and, in the same HMGET, the fields named in the list `extra` (optional), whose values
    it returns second, in order — and brings each window into its current period: when the start of the current day, week or
    month (starts[period], ms as a string, computed by the gateway in the billing time zone) is later than
    the stored one, its spent amount starts again from zero. Starts only move forward, so a replica whose
    clock lags a little cannot undo a reset.
    Returns a list of { slot = 1..3, budget = µ₽ or nil, period, spent = µ₽, start = its period's start }.
  refusingWindow(windows, reserved, amount)
    the first window that cannot take `amount` more beyond its spent amount and `reserved` (what requests in
    flight hold for the key, or for the account), or that is used up; nil when every window can.
  windowsFree(windows, reserved)
    the least of what each window leaves beyond spent + reserved (µ₽, possibly negative), nil without windows.
  chargeWindows(hashKey, windows, cost)
    adds `cost` (µ₽, a string of digits) to the spent amount of every window, once each.
  windowsReply(windows)
    "<period>:<budget>:<spent>" per window with a budget, separated by spaces ('' for none): the reply's form.
]]
local WINDOW_SUFFIXES = { '', '_2', '_3' }
local WINDOW_FIELDS = {}
for _, suffix in ipairs(WINDOW_SUFFIXES) do
  for _, field in ipairs({ 'budget', 'period', 'spent', 'period_start' }) do
    WINDOW_FIELDS[#WINDOW_FIELDS + 1] = field .. suffix
  end
end

local function readWindows(hashKey, starts, trackFirst, extra)
  local fields = WINDOW_FIELDS
  if extra then
    fields = {}
    for i, field in ipairs(WINDOW_FIELDS) do fields[i] = field end
    for _, field in ipairs(extra) do fields[#fields + 1] = field end
  end
  local r = redis.call('HMGET', hashKey, unpack(fields))
  local windows = {}
  for slot = 1, #WINDOW_SUFFIXES do
    local at = (slot - 1) * 4
    local budget = r[at + 1]
    if budget or (slot == 1 and trackFirst) then
      local period = r[at + 2] or 'month'
      local spent = tonumber(r[at + 3] or '0')
      local current = starts[period] or starts.month
      local start = r[at + 4] or '0'
      if tonumber(current) > tonumber(start) then
        local suffix = WINDOW_SUFFIXES[slot]
        redis.call('HSET', hashKey, 'spent' .. suffix, '0', 'period_start' .. suffix, current)
        spent, start = 0, current
      end
      windows[#windows + 1] = {
        slot = slot, budget = budget and tonumber(budget), period = period, spent = spent, start = start }
    end
  end
  local values = {}
  if extra then
    for i = 1, #extra do values[i] = r[#WINDOW_FIELDS + i] end
  end
  return windows, values
end

local function refusingWindow(windows, reserved, amount)
  for _, w in ipairs(windows) do
    if w.budget and (w.spent >= w.budget or (amount > 0 and w.spent + reserved + amount > w.budget)) then
      return w
    end
  end
  return nil
end

local function windowsFree(windows, reserved)
  local free
  for _, w in ipairs(windows) do
    if w.budget then
      local left = w.budget - w.spent - reserved
      if not free or left < free then free = left end
    end
  end
  return free
end

local function chargeWindows(hashKey, windows, cost)
  for _, w in ipairs(windows) do
    w.spent = redis.call('HINCRBY', hashKey, 'spent' .. WINDOW_SUFFIXES[w.slot], cost)
  end
end

local function windowsReply(windows)
  local parts = {}
  for _, w in ipairs(windows) do
    if w.budget then
      parts[#parts + 1] = w.period .. ':' .. string.format('%d', w.budget) .. ':' .. string.format('%d', w.spent)
    end
  end
  return table.concat(parts, ' ')
end

--[[
  Whether the account's balance limits its keys: always, except for an account in the budgeted mode (billing
  'budgeted') that has a window — the internal-chargeback mode, where the windows alone limit it. A budgeted
  account left without windows falls back to its balance rather than to no limit at all.
]]
local function balanceRequired(billing, accountWindows)
  return not (billing == 'budgeted' and #accountWindows > 0)
end
