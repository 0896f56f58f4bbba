-- wrk script for GET /v1/blacklist/check: cycles through a file of request paths (half hits, half
-- misses; one path per line), each thread from its own offset, with a bearer key.
--
--   BENCH_QUERIES   file of paths (default bench/data/queries.txt)
--   BENCH_KEY       the bearer key, or BENCH_KEY_FILE a file holding it
--   WRK_THREADS     thread count, to spread the offsets (default 2); or pass it as `-- N`
--
-- done() prints one parseable line:
--   RESULT requests=N duration_s=S rps=R p50_ms=.. p90_ms=.. p99_ms=.. max_ms=.. non2xx=N
--          connect_errors=N read_errors=N write_errors=N timeouts=N status_errors=N

local threads = {}
local thread_count = 0

function setup(thread)
   thread:set("thread_index", thread_count)
   thread_count = thread_count + 1
   table.insert(threads, thread)
end

local function read_key()
   local key = os.getenv("BENCH_KEY")
   if key and key ~= "" then return key end
   local file = os.getenv("BENCH_KEY_FILE")
   if file then
      local f = assert(io.open(file, "r"), "cannot open BENCH_KEY_FILE " .. file)
      key = f:read("*l")
      f:close()
      if key then return (key:gsub("%s+$", "")) end
   end
   error("set BENCH_KEY or BENCH_KEY_FILE")
end

function init(args)
   local path = os.getenv("BENCH_QUERIES") or "bench/data/queries.txt"
   local total_threads = tonumber(args[1] or os.getenv("WRK_THREADS") or "2")
   local headers = { ["Authorization"] = "Bearer " .. read_key() }
   requests_list = {}
   for line in io.lines(path) do
      if line ~= "" then
         requests_list[#requests_list + 1] = wrk.format("GET", line, headers)
      end
   end
   count = #requests_list
   assert(count > 0, "no queries in " .. path)
   -- Thread i starts at i/total of the list, so threads do not send the same sequence.
   position = math.floor((thread_index or 0) * count / total_threads) % count
   non2xx = 0
end

function request()
   position = position + 1
   if position > count then position = 1 end
   return requests_list[position]
end

function response(status, headers, body)
   if status < 200 or status > 299 then
      non2xx = non2xx + 1
   end
end

function done(summary, latency, requests)
   local bad = 0
   for _, thread in ipairs(threads) do
      bad = bad + (tonumber(thread:get("non2xx")) or 0)
   end
   local seconds = summary.duration / 1e6
   local e = summary.errors
   io.write(string.format(
      "RESULT requests=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f non2xx=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d status_errors=%d\n",
      summary.requests, seconds, summary.requests / seconds,
      latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
      bad, e.connect, e.read, e.write, e.timeout, e.status))
end
