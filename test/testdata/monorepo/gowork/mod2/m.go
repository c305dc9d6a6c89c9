package mod2
