STDIN.each_line do |line|
  p = line.split
  puts p[0].to_i + p[1].to_i if p.size >= 2
end
