from django.db import models


class Game(models.Model):
    state = models.JSONField(default=dict)
    version = models.IntegerField(default=0)


class Event(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE)
    seq = models.IntegerField()
    payload = models.JSONField()
    created = models.DateTimeField(auto_now_add=True)
