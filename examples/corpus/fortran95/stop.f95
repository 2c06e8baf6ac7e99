program aplusb
  implicit none
  integer(kind=8) :: a, b
  read (*, *) a, b
  write (*, '(I0)') a + b
  stop
end program aplusb
