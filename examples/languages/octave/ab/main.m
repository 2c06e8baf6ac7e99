x = fscanf(stdin, '%f');
n = 2 * floor(numel(x) / 2);
printf('%d\n', x(1:2:n) + x(2:2:n));
