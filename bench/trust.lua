-- wrk script for the keyless trust tier GET /v1/public/trust/{handle} (docs/api.md): the
-- handles of bench/data/badge.txt (90% known, 10% unknown: `found: false`, still 200). One
-- X-Forwarded-For per request; see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/trust.lua http://127.0.0.1:18080 -- 2 [bench/data/badge.txt]
route = {
   file = "badge.txt",
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function(f) return "/v1/public/trust/" .. urlencode(f[2]) end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
