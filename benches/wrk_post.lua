-- wrk script of the HTTP benchmarks (load.sh, isolation.sh, before_after.sh,
-- throughput.sh): POSTs BODY_FILE with the bearer TOKEN and prints the same
-- JSON line as examples/loadgen.rs as its last line. With VARY set, every
-- request's body has its own order number (ORD-2026-000000 replaced by a
-- counter): a new document each time, as the issue's measurements render.
-- With GET set instead of BODY_FILE, it GETs the URL (the barcode service).
if os.getenv("GET") then
  wrk.method = "GET"
else
  local file = io.open(os.getenv("BODY_FILE"), "rb")
  wrk.method = "POST"
  wrk.body = file:read("*all")
  file:close()
  wrk.headers["Content-Type"] = "application/json"
end
if (os.getenv("TOKEN") or "") ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
end

if os.getenv("VARY") then
  local template = wrk.body
  local counter = 0
  request = function()
    counter = counter + 1
    local body = template:gsub("ORD%-2026%-000000", string.format("ORD-2026-%06d", counter))
    return wrk.format(nil, nil, nil, body)
  end
end

local statuses = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  counts = {}
end

function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
end

function done(summary, latency, requests)
  -- Per-status counts from the thread's own table.
  for _, thread in ipairs(threads) do
    local c = thread:get("counts")
    for status, n in pairs(c) do
      statuses[status] = (statuses[status] or 0) + n
    end
  end
  local ok = statuses[200] or 0
  local parts = {}
  for status, n in pairs(statuses) do
    table.insert(parts, string.format('"%d": %d', status, n))
  end
  local seconds = summary.duration / 1e6
  io.write(string.format(
    '{"requests": %d, "ok": %d, "errors": %d, "seconds": %.3f, "rps": %.1f, "p50_ms": %.3f, "p99_ms": %.3f, "statuses": {%s}}\n',
    summary.requests, ok, summary.requests - ok, seconds, ok / seconds,
    latency:percentile(50) / 1e3, latency:percentile(99) / 1e3, table.concat(parts, ", ")))
end
