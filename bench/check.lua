-- wrk script for GET /v1/blacklist/check: cycles through a file of request paths (half hits, half
-- misses; one path per line), each thread from its own offset, with a bearer key.
--
--   BENCH_QUERIES   file of paths (default bench/data/queries.txt)
--   BENCH_KEY       the bearer key, or BENCH_KEY_FILE a file holding it
--   WRK_THREADS     thread count, to spread the offsets (default 2); or pass it as `-- N`
--
-- The RESULT line and the cycling are cycle.lua's.

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

local bearer = nil

route = {
   file = "queries.txt",
   env = "BENCH_QUERIES",
   path = function(f) return f[1] end,
   headers = function()
      bearer = bearer or { ["Authorization"] = "Bearer " .. read_key() }
      return bearer
   end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
