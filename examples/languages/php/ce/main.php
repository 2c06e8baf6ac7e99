<?php
function main( {
    return 1;
}
