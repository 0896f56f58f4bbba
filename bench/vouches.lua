-- wrk script for the keyless GET /v1/public/users/{handle}/vouches (docs/api.md): the known
-- handles of bench/data/badge.txt (an unknown one is 404), limit 20 or 100 in turn. One
-- X-Forwarded-For per request; see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/vouches.lua http://127.0.0.1:18080 -- 2 [bench/data/badge.txt]
route = {
   file = "badge.txt",
   keep = function(f) return f[1] == "known" end,
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function(f, i) return "/v1/public/users/" .. urlencode(f[2]) .. "/vouches?limit=" .. (i % 2 == 0 and "20" or "100") end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
