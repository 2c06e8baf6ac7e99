program main
  implicit none
  x = 1
end program main
