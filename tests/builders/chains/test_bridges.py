

def test_an_author_group_without_a_year_names_no_one_work():
    """q37: "Zhang et al." bridged a 2018 citation to the 2006 Zhang et al. row of a results table."""
    from builders.chains.bridges import specific_name

    assert not specific_name("Zhang et al.", "PERSON") and not specific_name("Peng et al", "PERSON")
    assert not specific_name("Zhang et al.,", "PERSON")
    assert specific_name("Zhang et al. (2006)", "PERSON") and specific_name("Peng and Dredze", "PERSON")
