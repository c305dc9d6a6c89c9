package deep

func B() int { return 2 }
