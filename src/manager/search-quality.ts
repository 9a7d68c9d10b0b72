/** The facade's search evaluation (`toolman eval search`): recall, MRR and NDCG of the catalog's search on labelled queries. */
export { evaluateSearch } from '../search/evaluate-search.js';
