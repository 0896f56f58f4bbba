-- wrk script for the badge GET /badge/{handle}?theme= (docs/api.md; no IP limit, always 200):
-- cycles through bench/data/badge.txt (`kind<TAB>handle<TAB>theme`: 90% known handles, 10%
-- unknown; half theme=light, half dark). Sends X-Forwarded-For like the other keyless scripts, so
-- the three differ only in the route; see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/badge.lua http://127.0.0.1:18080 -- 2 [bench/data/badge.txt]
route = {
   file = "badge.txt",
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function(f) return "/badge/" .. urlencode(f[2]) .. "?theme=" .. f[3] end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
