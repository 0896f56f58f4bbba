-- wrk script for deep pages of the keyless creator directory GET /v1/public/directory (docs/api.md):
-- the last pages a query may ask for (page x limit up to 1000, the directory's bound),
-- built from bench/data/directory.txt. Line i is, by i mod 4: the whole list; one platform; a
-- 1-2 character handle prefix (the first two characters of the line's fragment); the fragment
-- itself. Its sort is the line's; limit 24, 50 or 100 and the page one to three before the bound.
-- The probe (keyless-probe.ts) builds the same paths. One X-Forwarded-For per request; see cycle.lua.
--   wrk -t2 -c16 -d10s -s bench/directory-deep.lua http://127.0.0.1:18080 -- 2 [bench/data/directory.txt]
local platforms = { "discord", "roblox", "epic", "tiktok", "twitch", "minecraft", "twitter", "youtube", "github" }
local limits = { 24, 50, 100 }
route = {
   file = "directory.txt",
   headers = function(i, t) return forwarded_for(i, t) end,
   path = function(f, i)
      local variant, n = i % 4, math.floor(i / 4)
      local limit = limits[n % 3 + 1]
      local page = math.floor(1000 / limit) - i % 3
      local filter = ""
      if variant == 1 then filter = "&platform=" .. platforms[n % 9 + 1]
      elseif variant == 2 then filter = "&q=" .. urlencode(f[2]:sub(1, 2))
      elseif variant == 3 then filter = "&q=" .. urlencode(f[2]) end
      return "/v1/public/directory?sort=" .. f[3] .. "&page=" .. page .. "&limit=" .. limit .. filter
   end,
}
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "cycle.lua")
