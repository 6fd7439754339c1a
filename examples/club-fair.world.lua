-- The world of examples/club-fair.dialogue.md: who is in which club.
--
-- Keys the script asks (You.InClub, You.HasTicket, You.Club) are read from these globals;
-- the custom command JoinClub("You", "Art") calls JoinClub below, and a default command
-- ("bunting flutters over the quad") calls perform.

You = { InClub = false, HasTicket = false }

-- How often someone has tried to sign the chess club's sheet.
ChessSignatures = 0

function JoinClub(who, club)
  if club == "Chess" then
    ChessSignatures = ChessSignatures + 1
    if ChessSignatures == 1 then
      error("a gust of wind blows the chess sign-up sheet away; try again")
    end
  end
  _G[who].InClub = true
  _G[who].Club = club
  print(who .. " joined the " .. club .. " club")
end

function perform(action)
  print("~ " .. action .. " ~")
end
