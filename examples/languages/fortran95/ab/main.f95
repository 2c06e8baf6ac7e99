program main
  implicit none
  integer(kind=8) :: a, b
  integer :: ios
  do
    read (*, *, iostat=ios) a, b
    if (ios /= 0) exit
    write (*, '(I0)') a + b
  end do
end program main
