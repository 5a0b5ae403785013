import { dynamoConformance } from './helpers/dynamodb';

// dynalite has no TransactWriteItems: the store without transactions, as for any such server.
dynamoConformance('dynalite', 'client', { transactions: false });
