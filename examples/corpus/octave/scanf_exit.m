ab = scanf("%d", 2);
printf("%d\n", ab(1) + ab(2));
exit(0);
disp("not reached");
