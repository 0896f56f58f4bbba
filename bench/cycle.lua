-- Shared body of the wrk scripts (check.lua, search.lua, directory.lua, badge.lua); not run on its
-- own. The route script sets the global `route` and then dofile()s this file:
--   route = { file = "<query file in BENCH_DATA>", env = "<env var naming another file>" (optional),
--             path = function(fields, i) ... end, headers = function(i, t) ... end,
--             keep = function(fields) ... end (optional: only lines it accepts are sent) }
-- `i` counts the lines kept, from 0.
--
-- Reads a query file written by bench/generate.ts (tab-separated fields; the keyless lists carry
-- the query's kind first), builds every request once up front and cycles through them, each
-- thread from its own offset, so threads do not send the same sequence.
--
-- Keyless routes are limited to 10 requests/s (burst 60) per client IP, so their requests carry
-- forwarded_for(i, t) (the server runs with --trust-proxy): thread t, line i sends
-- 10.(64t + i/65536).(i/256 % 256).(i % 256). An address comes back once per pass through the
-- list (tens of thousands of requests), far below the limit: the rounds measure the service, not
-- the limiter. 429s are counted apart (status_429) so a round that hit it anyway shows it.
--
-- Arguments after `--`: thread count (to spread the offsets; default WRK_THREADS or 2), query file
-- (default $<route.env>, else $BENCH_DATA/<route.file>, BENCH_DATA defaulting to bench/data).
--
-- done() prints one parseable line:
--   RESULT requests=N duration_s=S rps=R p50_ms=.. p90_ms=.. p99_ms=.. max_ms=.. non2xx=N status_429=N
--          connect_errors=N read_errors=N write_errors=N timeouts=N status_errors=N

local threads = {}
local thread_count = 0

function setup(thread)
   thread:set("thread_index", thread_count)
   thread_count = thread_count + 1
   table.insert(threads, thread)
end

function urlencode(s)
   return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

local function fields_of(line)
   local fields = {}
   for field in (line .. "\t"):gmatch("([^\t]*)\t") do fields[#fields + 1] = field end
   return fields
end

-- The keyless routes' client address for line i of thread t (see the header).
function forwarded_for(i, t)
   return { ["X-Forwarded-For"] = string.format("10.%d.%d.%d", 64 * t + math.floor(i / 65536) % 64, math.floor(i / 256) % 256, i % 256) }
end

function init(args)
   local total_threads = tonumber(args[1] or os.getenv("WRK_THREADS") or "2")
   local path = args[2] or (route.env and os.getenv(route.env)) or ((os.getenv("BENCH_DATA") or "bench/data") .. "/" .. route.file)
   local t = thread_index or 0
   requests_list = {}
   for line in io.lines(path) do
      local fields = line ~= "" and fields_of(line)
      if fields and (not route.keep or route.keep(fields)) then
         local i = #requests_list
         requests_list[i + 1] = wrk.format("GET", route.path(fields, i), route.headers(i, t))
      end
   end
   count = #requests_list
   assert(count > 0, "no queries in " .. path)
   position = math.floor(t * count / total_threads) % count
   non2xx = 0
   limited = 0
end

-- BENCH_PACE_MS: each connection waits this many milliseconds before each request, which offers a
-- fixed rate below saturation (about connections x 1000 / (pace + latency) per second).
local pace = tonumber(os.getenv("BENCH_PACE_MS") or "")
if pace then
   function delay() return pace end
end

function request()
   position = position + 1
   if position > count then position = 1 end
   return requests_list[position]
end

function response(status, headers, body)
   if status < 200 or status > 299 then
      non2xx = non2xx + 1
      if status == 429 then limited = limited + 1 end
   end
end

function done(summary, latency, requests)
   local bad, bad429 = 0, 0
   for _, thread in ipairs(threads) do
      bad = bad + (tonumber(thread:get("non2xx")) or 0)
      bad429 = bad429 + (tonumber(thread:get("limited")) or 0)
   end
   local seconds = summary.duration / 1e6
   local e = summary.errors
   io.write(string.format(
      "RESULT requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f non2xx=%d status_429=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d status_errors=%d\n",
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
      bad, bad429, e.connect, e.read, e.write, e.timeout, e.status))
end
