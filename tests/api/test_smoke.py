"""First contact: teams, users and /users/me answer as the spec says."""

from __future__ import annotations


def test_list_teams_returns_page(api):
    response = api.get("/v1/teams")
    assert response.status_code == 200
    body = response.get_json()
    assert [t["name"] for t in body["items"]] == ["Emergency", "Intensive Care"]
    assert body["cursor"] is None


def test_me_describes_the_signed_in_provider(api, world):
    response = api.get("/v1/users/me", user="provider@example.com")
    assert response.status_code == 200, response.get_json()
    me = response.get_json()
    assert me["providerId"] == str(world.provider)
    assert me["roles"] == ["Provider"]
    assert me["teamIds"] == [str(world.ed)]
