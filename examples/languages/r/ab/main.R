con <- file("stdin")
lines <- readLines(con)
close(con)
for (line in lines) {
  p <- strsplit(trimws(line), "[[:space:]]+")[[1]]
  if (length(p) >= 2) cat(sprintf("%.0f\n", as.numeric(p[1]) + as.numeric(p[2])))
}
