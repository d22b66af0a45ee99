// NetTests (in progress).
