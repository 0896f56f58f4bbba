-- wrk script for the keyless public counters GET /v1/stats/public (docs/api.md). The lines of
-- bench/data/badge.txt only give each request its own X-Forwarded-For; see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/stats.lua http://127.0.0.1:18080 -- 2 [bench/data/badge.txt]
route = {
   file = "badge.txt",
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function() return "/v1/stats/public" end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
