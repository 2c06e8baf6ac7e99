main :: IO ()
main = interact $ unlines . map (show . sumLine) . filter ((>= 2) . length . words) . lines
  where
    sumLine :: String -> Integer
    sumLine = sum . map read . take 2 . words
